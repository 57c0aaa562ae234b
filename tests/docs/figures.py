"""The published-figures harness: every figure the documents quote is reproduced by code.

A **check** names a document, the exact text it quotes from it (compared with whitespace
collapsed, so line breaks do not matter), and a function that computes the figures -- a
``balance`` command run in this process (:func:`cli`, :func:`cli_json`) or a Python call --
and compares each figure of the quote through a :class:`Claims` object:

* :meth:`Claims.exact` -- an exact result, equal to the printed digits (a half unit of the
  last digit either way);
* :meth:`Claims.mc` -- a Monte Carlo rate with the quoted n and seed: the quoted point (and
  interval, if quoted) within the run's own 95% half-width of the run's point (endpoints);
* :meth:`Claims.approx` -- an approximate figure ("about", "~") within a stated tolerance;
* :meth:`Claims.holds` -- a figure that is a comparison ("more than double"), as a condition.

The harness fails a check whose quote is no longer in its document (so a document and its
test cannot drift apart silently), and one whose quote holds a figure the check does not
compare or list as an input (``given``: the n, the seed, a field value).

The **scanner** (:func:`scan`) finds every figure that looks like a result in the prose of
the documents: percentages, decimals, figures with a unit of time, speed, memory or score
(``s``, ``ms``, ``M``, ``k``, ``MB``, ``points``, ``rounds``, ``Elo``, ``times``, ``states``),
approximations (``~3``, ``about 25``), test tolerances (``1e-10``) and words such as
``twice``.  Fenced code (but for its comments), inline code and a notebook's code are not
prose.  :data:`ALLOW` lists the figures that are not results, each with its reason.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import re
import shlex
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from balance.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ("README.md", "experiments/README.md", *sorted(
    str(p.relative_to(ROOT)) for p in [*ROOT.glob("docs/*.md"), *ROOT.glob("notebooks/*.py")]))
"""Every document whose figures are checked (paths relative to the repository root)."""

# ---------------------------------------------------------------------------------------------
# Documents as prose

@dataclass(frozen=True)
class Prose:
    """A document's text with whitespace collapsed, and which characters are prose.

    ``text`` is what quotes are looked up in (code included, so a quote may hold a command);
    ``prose[i]`` is False where ``text[i]`` is code (a figure there is an input, not a
    result).
    """

    path: str
    text: str
    prose: tuple[bool, ...]

    def find_all(self, quote: str) -> list[tuple[int, int]]:
        """Every span of ``quote`` (whitespace collapsed) in the text."""
        needle = " ".join(quote.split())
        spans, start = [], self.text.find(needle)
        while start >= 0 and needle:
            spans.append((start, start + len(needle)))
            start = self.text.find(needle, start + 1)
        return spans


_FENCE = re.compile(r"^\s*(```|~~~)")
_COMMENT = re.compile(r"(?:^|\s)#\s")


def _markdown_flags(lines: Iterable[str]) -> list[tuple[str, bool]]:
    """(piece, is_prose) for Markdown lines: fenced code is code but for its comments,
    inline code spans are code (a span may wrap onto the next line of its paragraph)."""
    out: list[tuple[str, bool]] = []
    fenced = inline = False
    for line in lines:
        if _FENCE.match(line):
            fenced, inline = not fenced, False
            out.append((line + "\n", False))
            continue
        if fenced:
            comment = _COMMENT.search(line)
            if comment:
                out.append((line[:comment.start()], False))
                out.append((line[comment.start():] + "\n", True))
            else:
                out.append((line + "\n", False))
            continue
        if not line.strip():
            inline = False  # a span never crosses a paragraph
        pos = 0
        for i, ch in enumerate(line):
            if ch == "`":
                if inline:
                    out.append((line[pos:i + 1], False))
                    pos = i + 1
                else:
                    out.append((line[pos:i], True))
                    pos = i
                inline = not inline
        out.append((line[pos:] + "\n", not inline))
    return out


_CELL = re.compile(r"^# %%(.*)$", re.M)
_MARKDOWN_CALL = re.compile(r'Markdown\(f?"""(.*?)"""\)', re.S)


def _notebook_flags(source: str) -> list[tuple[str, bool]]:
    """(piece, is_prose) for a jupytext percent notebook: its Markdown cells, and the literal
    text of the ``Markdown(f\"\"\"...\"\"\")`` a code cell displays (the ``{...}`` fields
    are code)."""
    out: list[tuple[str, bool]] = []
    marks = list(_CELL.finditer(source))
    for i, mark in enumerate(marks):
        body = source[mark.end():marks[i + 1].start() if i + 1 < len(marks) else len(source)]
        if "[markdown]" in mark.group(1):
            lines = [re.sub(r"^# ?", "", line) for line in body.strip("\n").splitlines()]
            out.extend(_markdown_flags(lines))
            out.append(("\n", True))
            continue
        for call in _MARKDOWN_CALL.finditer(body):
            pieces: list[tuple[str, bool]] = []
            depth, pos, text = 0, 0, call.group(1)
            for j, ch in enumerate(text):  # split literal text from {fields}
                if ch == "{":
                    if depth == 0:
                        pieces.append((text[pos:j], True))
                        pos = j
                    depth += 1
                elif ch == "}":
                    depth -= 1
                    if depth == 0:
                        pieces.append((text[pos:j + 1], False))
                        pos = j + 1
            pieces.append((text[pos:], True))
            for piece, is_prose in pieces:  # inline code inside the literal text
                if not is_prose:
                    out.append((piece, False))
                    continue
                flagged = _markdown_flags(piece.split("\n"))
                out.extend(flagged)
            out.append(("\n", True))
    return out


@functools.cache
def document(path: str) -> Prose:
    """A document of :data:`DOCUMENTS` as :class:`Prose`."""
    source = (ROOT / path).read_text(encoding="utf-8")
    pieces = _notebook_flags(source) if path.endswith(".py") else _markdown_flags(
        source.splitlines())
    chars: list[str] = []
    flags: list[bool] = []
    for piece, is_prose in pieces:
        for ch in piece:
            if ch.isspace():
                if chars and chars[-1] == " ":
                    continue
                ch = " "
            chars.append(ch)
            flags.append(is_prose)
    return Prose(path, "".join(chars).strip(), tuple(flags))


# ---------------------------------------------------------------------------------------------
# The scanner

NUMBER = r"\d+(?:,\d{3})*(?:\.\d+)?"
_RANGE = rf"{NUMBER}(?:\s?(?:[–-]|to|->|→)\s?{NUMBER})?"
_UNITS = (r"%|ms\b|s\b|M\b|k\b|MB\b|GB\b|fights/s|points?\b|Elo\b|rounds?\b|times\b|"
          r"states\b|combats\b|×")
FIGURE = re.compile(
    r"(?<![\w.\-/])(?:"
    rf"[~≈]\s?{_RANGE}(?:\s?(?:{_UNITS}))?"                       # ~5–7 M, ~97%
    rf"|(?:(?<=about )|(?<=around )|(?<=roughly )|(?<=nearly )|(?<=almost )){_RANGE}"
    rf"(?:\s?(?:{_UNITS}))?"                                      # about 25 points
    rf"|{_RANGE}\s?(?:{_UNITS})"                                  # 81.4%, 30–42 s
    r"|\d+(?:\.\d+)?e-\d+"                                        # 1e-10
    r"|\d+\.\d+(?![\d.]*\d)"                                      # 0.92, 6.8
    r")"
    r"|\b(?:twice|double|triple|halves|millions|thousands)\b",
    re.I)
"""What looks like a result in prose."""


@dataclass(frozen=True)
class Token:
    path: str
    text: str
    start: int
    end: int

    def context(self, doc: Prose, width: int = 50) -> str:
        return doc.text[max(0, self.start - width):self.end + width]


def scan(doc: Prose, start: int = 0, end: int | None = None) -> list[Token]:
    """Every figure of :data:`FIGURE` in the prose part of ``doc.text[start:end]``."""
    stop = len(doc.text) if end is None else end
    tokens = []
    for m in FIGURE.finditer(doc.text, start, stop):
        if all(doc.prose[m.start():m.end()]):
            tokens.append(Token(doc.path, m.group().strip(), m.start(), m.end()))
    return tokens


def numbers(snippet: str) -> list[tuple[float, float]]:
    """The numbers of a snippet as (value, half a unit of its last printed digit)."""
    out = []
    for m in re.finditer(NUMBER, snippet):
        text = m.group().replace(",", "")
        decimals = len(text.partition(".")[2])
        out.append((float(text), 0.5 * 10.0 ** -decimals))
    return out


# ---------------------------------------------------------------------------------------------
# Computations

@functools.cache
def cli(command: str) -> str:
    """Run ``balance ...`` in this process (cached for the session); its standard output."""
    argv = shlex.split(command)
    assert argv[0] == "balance", command
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(argv[1:])
    assert status == 0, f"{command} exited with {status}"
    return out.getvalue()


def cli_json(command: str) -> Any:
    """``balance ... --json`` run in this process, parsed."""
    return json.loads(cli(f"{command} --json"))


# ---------------------------------------------------------------------------------------------
# Checks

class Mismatch(AssertionError):
    pass


@dataclass
class Claims:
    """What a check compares: each claim names a snippet of the quote and its figures."""

    check: Check
    doc: Prose
    claimed: list[str] = field(default_factory=list)

    def _snippet(self, snippet: str) -> list[tuple[float, float]]:
        if " ".join(snippet.split()) not in " ".join(self.check.quote.split()):
            raise Mismatch(f"{snippet!r} is not part of the quote {self.check.quote!r}")
        self.claimed.extend(t.text for t in scan(_as_prose(snippet)))
        return numbers(snippet)

    def run(self, command: str, *extra: str) -> Any:
        """``balance COMMAND --json`` (with ``extra`` arguments appended): the command the
        document quotes, so ``command`` must be in the document."""
        if not self.doc.find_all(command):
            raise Mismatch(f"{self.doc.path} no longer quotes the command {command!r}")
        return cli_json(" ".join([command, *extra]))

    def exact(self, snippet: str, *values: float, scale: float | None = None) -> None:
        """Exact results, one per number of ``snippet``, equal to the printed digits
        (``scale`` 100 for percentages, the default when the snippet has a %)."""
        quoted = self._snippet(snippet)
        scale = scale if scale is not None else (100.0 if "%" in snippet else 1.0)
        _same_length(snippet, quoted, values)
        for (number, half_unit), value in zip(quoted, values, strict=True):
            if abs(scale * value - number) > half_unit + 1e-9 * max(1.0, abs(number)):
                raise Mismatch(f"{self.doc.path}: {snippet!r}: {number:g} is quoted, the "
                               f"computation gives {scale * value:.6g}; it reads "
                               f"{_restate(snippet, quoted, values, scale)!r}")

    def mc(self, snippet: str, rate: float, ci: Iterable[float],
           scale: float | None = None) -> None:
        """A Monte Carlo rate: ``snippet`` is a point, or a point and its interval; each must
        lie within the run's 95% half-width (plus rounding) of the run's point / endpoint."""
        quoted = self._snippet(snippet)
        low, high = ci
        scale = scale if scale is not None else (100.0 if "%" in snippet else 1.0)
        tolerance = scale * (high - low) / 2
        expected = [rate] if len(quoted) == 1 else [rate, low, high]
        _same_length(snippet, quoted, expected)
        for (number, half_unit), value in zip(quoted, expected, strict=True):
            if abs(scale * value - number) > tolerance + half_unit + 1e-9:
                raise Mismatch(f"{self.doc.path}: {snippet!r}: {number:g} is quoted, the run "
                               f"gives {scale * value:.4g} (half-width {tolerance:.3g}); the "
                               f"run reads {_restate(snippet, quoted, expected, scale)!r}")

    def approx(self, snippet: str, *values: float, tolerance: float,
               scale: float | None = None) -> None:
        """Approximate figures ("about", "~"): each within ``tolerance`` (in the quoted
        units) plus rounding of its value."""
        quoted = self._snippet(snippet)
        scale = scale if scale is not None else (100.0 if "%" in snippet else 1.0)
        _same_length(snippet, quoted, values)
        for (number, half_unit), value in zip(quoted, values, strict=True):
            if abs(scale * value - number) > tolerance + half_unit:
                raise Mismatch(f"{self.doc.path}: {snippet!r}: {number:g} is quoted, the "
                               f"computation gives {scale * value:.4g} (tolerance "
                               f"{tolerance:g})")

    def holds(self, snippet: str, condition: bool, computed: str = "") -> None:
        """A figure that is a comparison or a statement; ``computed`` says what was found."""
        self._snippet(snippet)
        if not condition:
            raise Mismatch(f"{self.doc.path}: {snippet!r} does not hold: {computed}")


def _restate(snippet: str, quoted: list[tuple[float, float]], values: Iterable[float],
             scale: float) -> str:
    """``snippet`` with each number replaced by the computed value, to the same digits."""
    values = iter(list(values))

    def one(m: re.Match[str]) -> str:
        decimals = len(m.group().replace(",", "").partition(".")[2])
        return f"{scale * next(values):,.{decimals}f}"
    return re.sub(NUMBER, one, snippet)


def _same_length(snippet: str, quoted: list[Any], values: Iterable[Any]) -> None:
    if len(quoted) != len(list(values)):
        raise Mismatch(f"{snippet!r} has {len(quoted)} numbers; the check compares "
                       f"{len(list(values))}")


def _as_prose(text: str) -> Prose:
    collapsed = " ".join(text.split())
    return Prose("<snippet>", collapsed, (True,) * len(collapsed))


@dataclass(frozen=True)
class Check:
    """One quote of one document and the code that reproduces its figures."""

    path: str
    quote: str
    verify: Callable[[Claims], None]
    given: tuple[str, ...] = ()
    """Figures of the quote that are inputs (the n, a seed, a field's value), not results."""
    slow: bool = False

    @property
    def name(self) -> str:
        return f"{self.path}::{self.verify.__name__}"

    def run(self) -> None:
        doc = document(self.path)
        if not doc.find_all(self.quote):
            raise Mismatch(f"{self.path} no longer says {' '.join(self.quote.split())!r}")
        claims = Claims(self, doc)
        self.verify(claims)
        for text in self.given:
            if " ".join(text.split()) not in " ".join(self.quote.split()):
                raise Mismatch(f"given {text!r} is not part of the quote")
        quote = _as_prose(self.quote)
        allowed = [span for a in ALLOW if Path(self.path).match(a.paths)
                   for span in a.spans(Prose(self.path, quote.text, quote.prose))]
        found = Counter(t.text for t in scan(quote)
                        if not any(s <= t.start and t.end <= e for s, e in allowed))
        covered = Counter(claims.claimed) + Counter(
            t.text for text in self.given for t in scan(_as_prose(text)))
        unchecked = found - covered
        if unchecked:
            raise Mismatch(f"{self.name}: figures of the quote no claim compares: "
                           f"{sorted(unchecked.elements())}")


CHECKS: list[Check] = []


def check(path: str, quote: str, *, given: Iterable[str] = (), slow: bool = False,
          until: str | None = None
          ) -> Callable[[Callable[[Claims], None]], Callable[[Claims], None]]:
    """Register a check of ``quote`` in ``path`` (see :class:`Check`).

    ``until`` names a test module that will take the page over (a page being rewritten on
    another branch, with figure tests of its own): once that module exists the check is not
    registered, and an :func:`external` entry for the module covers the page instead.
    """
    assert path in DOCUMENTS, path

    def register(verify: Callable[[Claims], None]) -> Callable[[Claims], None]:
        if until is None or not (ROOT / until).is_file():
            CHECKS.append(Check(path, quote, verify, tuple(given), slow))
        return verify
    return register


# ---------------------------------------------------------------------------------------------
# What is not a result

@dataclass(frozen=True)
class Allow:
    """Figures that are not results: every figure inside ``text`` (literal, whitespace
    collapsed) or a match of ``pattern`` in the documents matching ``paths`` (a glob)."""

    paths: str
    reason: str
    text: str | None = None
    pattern: str | None = None

    def spans(self, doc: Prose) -> list[tuple[int, int]]:
        if not Path(doc.path).match(self.paths):
            return []
        if self.text is not None:
            return doc.find_all(self.text)
        assert self.pattern is not None
        return [m.span() for m in re.finditer(self.pattern, doc.text)]


ALLOW: list[Allow] = []


def allow(paths: str, reason: str, *texts: str, pattern: str | None = None) -> None:
    """Allowlist ``texts`` (or ``pattern``) in the documents ``paths`` for ``reason``."""
    for text in texts:
        ALLOW.append(Allow(paths, reason, text=text))
    if pattern is not None:
        ALLOW.append(Allow(paths, reason, pattern=pattern))


def uncovered(path: str, extra_spans: Iterable[tuple[int, int]] = ()) -> list[Token]:
    """The figures of a document that no check quotes and no allowlist entry names."""
    doc = document(path)
    spans = [span for c in CHECKS if c.path == path for span in doc.find_all(c.quote)]
    spans += [span for a in ALLOW for span in a.spans(doc)]
    spans += [span for e in EXTERNAL if e.path == path for span in e.spans()]
    spans += list(extra_spans)
    return [t for t in scan(doc) if not any(s <= t.start and t.end <= e for s, e in spans)]


# ---------------------------------------------------------------------------------------------
# Figures another test module checks

@dataclass(frozen=True)
class External:
    """Figures of ``path`` checked by the test module ``test`` (its own harness): every
    string constant of that module (adjacent literals joined, whitespace collapsed) that the
    document contains covers the figures inside it -- so a quote the other module drops is
    no longer covered here."""

    path: str
    test: str
    reason: str
    printed: bool = False
    """Also count a figure as checked when a ``console`` block of the page prints it (for a
    test module that runs every console command of the page and compares its output)."""

    def quotes(self) -> list[str]:
        import ast

        tree = ast.parse((ROOT / self.test).read_text(encoding="utf-8"))
        texts = {" ".join(node.value.split()) for node in ast.walk(tree)
                 if isinstance(node, ast.Constant) and isinstance(node.value, str)}
        return [t for t in texts if len(t) >= 8 and document(self.path).find_all(t)]

    def spans(self) -> list[tuple[int, int]]:
        doc = document(self.path)
        spans = [span for text in self.quotes() for span in doc.find_all(text)]
        if self.printed:
            source = (ROOT / self.path).read_text(encoding="utf-8")
            output = " ".join(re.findall(r"```console\n(.*?)```", source, flags=re.S))
            spans += [(t.start, t.end) for t in scan(doc) if t.text in output]
        return spans


EXTERNAL: list[External] = []


def external(path: str, test: str, reason: str, *, printed: bool = False,
             if_present: bool = False) -> None:
    """Count the figures of ``path`` quoted in the test module ``test`` as checked there
    (and, with ``printed``, those a console block of the page prints).  ``if_present``: only
    once the module exists (see ``until`` of :func:`check`)."""
    assert path in DOCUMENTS, path
    if not if_present or (ROOT / test).is_file():
        EXTERNAL.append(External(path, test, reason, printed))
