"""Render a :class:`~.build.Report` as HTML and as Markdown, its figures as PNG files.

A report folder holds ``report.html``, ``report.md`` and ``figures/<name>.png``: each figure
is stored once, and both pages reference it by relative path (``--embed`` puts the PNGs
inside the HTML instead, for a page to send alone; ``--svg`` adds an SVG twin of each
figure, which the Markdown twin links under the figure).  Nothing else is written, so a
committed report folder holds no file that nothing references (:func:`unreferenced`)."""

from __future__ import annotations

import base64
import html
import re
import urllib.parse
from pathlib import Path
from typing import Any

import pandas as pd

from ..files import atomic_write, bounded_name, check_folder, make_folder, writing_in
from ..theme import FONT
from .build import (
    Figure,
    Paragraph,
    Report,
    Table,
    build,
    question_from_spec,
    run_verdict,
    spec_figures,
)

__all__ = ["render", "to_html", "to_markdown", "unreferenced"]

FIGURES = "figures"
"""The report folder's subfolder of figures."""

CSS = """
body { font: 15px/1.5 FONT; max-width: 980px;
       margin: 2em auto; padding: 0 1em; color: #1d1d1f; }
h1 { font-size: 1.7em; margin-bottom: 0.1em; } .subtitle { color: #666; margin-top: 0; }
h2 { border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 1.8em; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left;
         font-variant-numeric: tabular-nums; }
th { background: #f4f4f6; }
caption { caption-side: top; text-align: left; color: #444; padding-bottom: 0.3em; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #444; font-size: 0.9em; }
.note { background: #fff6e0; border-left: 4px solid #e0a000; padding: 0.5em 0.8em; }
pre { background: #f6f8fa; padding: 0.6em 0.8em; overflow-x: auto; }
section.verdict { background: #eef5ff; border: 1px solid #b8d4f5; border-radius: 6px;
                  padding: 0.2em 1.2em 0.6em; margin-top: 1em; }
section.verdict h2 { border: none; margin-top: 0.5em; }
section.verdict ul { padding-left: 1.2em; margin: 0.3em 0; } section.verdict li { margin: 0.3em 0; }
section.verdict .rests { color: #333; font-size: 0.92em; }
""".replace("FONT", FONT)


def _html_table(block: Table) -> str:
    body = block.frame.to_html(index=False, border=0, escape=True, na_rep="")
    body = body.replace('<table class="dataframe">', "<table>", 1)
    if block.caption:
        body = body.replace("<table>", f"<table><caption>{html.escape(block.caption)}</caption>", 1)
    if block.collapsed:
        return (f"<details><summary>{html.escape(block.caption or 'table')} "
                f"({len(block.frame)} rows)</summary>{body}</details>")
    return body


_PICTURES = {**{code: 0x2400 + code for code in range(32) if chr(code) not in "\n\t"},
             127: 0x2421, **{code: 0xFFFD for code in range(128, 160)}}


def _pictured(page: str) -> str:
    """A page with every control character but newline and tab shown as its picture (ESC
    as U+241B, a C1 control as U+FFFD): names holding them are refused when read, and a
    damaged run record still cannot put a raw ESC in a page a terminal may print."""
    return page.translate(_PICTURES)


def _code_spans(text: str) -> str:
    """Escaped text with its `code` spans (a reading's name) as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def figure_target(figure: Figure, figure_dir: str = FIGURES, ext: str = "png") -> str:
    """The relative URL of a figure's file (``figures/<name>.png``), as both pages link it."""
    return f"{figure_dir}/{urllib.parse.quote(bounded_name(figure.name))}.{ext}"


def to_html(report: Report, figure_dir: str = FIGURES, *, embed: bool = False) -> str:
    """One HTML page; each figure an ``<img>`` of ``figure_dir/<name>.png`` beside it, or
    with ``embed`` the PNG itself as a data URI (a page that needs no other file)."""
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{html.escape(report.title)}</title>", f"<style>{CSS}</style>",
             "</head><body>", f"<h1>{html.escape(report.title)}</h1>",
             f'<p class="subtitle">{html.escape(report.subtitle)}</p>']
    for section in report.sections:
        verdict = any(isinstance(b, Paragraph) and b.kind == "verdict" for b in section.blocks)
        if verdict:  # the answer, first on the page: its own box, one sentence a line
            parts.append(f'<section class="verdict" id="verdict"><h2>'
                         f"{html.escape(section.title)}</h2><ul>")
            parts += [f"<li>{_code_spans(b.text)}</li>" for b in section.blocks
                      if isinstance(b, Paragraph) and b.kind == "verdict"]
            parts.append("</ul>")
            parts += [f'<p class="rests">{_code_spans(b.text)}</p>' for b in section.blocks
                      if isinstance(b, Paragraph) and b.kind == "rests"]
            parts.append("</section>")
            continue
        parts.append(f"<h2>{html.escape(section.title)}</h2>")
        for block in section.blocks:
            if isinstance(block, Paragraph):
                if block.kind == "code":
                    parts.append(f"<pre>{html.escape(block.text)}</pre>")
                else:
                    cls = ' class="note"' if block.kind == "note" else ""
                    parts.append(f"<p{cls}>{html.escape(block.text)}</p>")
            elif isinstance(block, Table):
                parts.append(_html_table(block))
            elif isinstance(block, Figure):
                src = ("data:image/png;base64," + base64.b64encode(block.png).decode("ascii")
                       if embed else figure_target(block, figure_dir))
                parts.append(f'<figure><img alt="{html.escape(block.caption)}" '
                             f'src="{html.escape(src)}"><figcaption>'
                             f"{html.escape(block.caption)}</figcaption></figure>")
    parts.append("</body></html>")
    return _pictured("\n".join(parts) + "\n")


_MD_ESCAPES = str.maketrans({"\\": "\\\\", "&": "&amp;", "<": "&lt;", ">": "&gt;",
                              "[": "\\[", "]": "\\]", "`": "\\`"})


def _md(text: Any) -> str:
    """Text for the Markdown twin, escaped as the HTML page escapes it: no raw HTML (``&``,
    ``<``, ``>`` as entities, which every Markdown reader shows as the characters), no
    links, images or code fences (brackets, backticks and backslashes backslash-escaped).  A name or description
    holding ``<script>`` or ``[x](javascript:...)`` is shown, never run."""
    return str(text).translate(_MD_ESCAPES)


def _md_line(text: Any) -> str:
    """:func:`_md` on one line (headings, captions, list items)."""
    return " ".join(_md(text).split())


def _md_code(text: str, info: str = "") -> list[str]:
    """A fenced code block that ``text`` cannot close: the fence is longer than any run of
    backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, text, fence]


def _md_cell(value: Any) -> str:
    missing = value is None or (not isinstance(value, str | list | tuple | dict)
                                and bool(pd.isna(value)))
    return "" if missing else _md_line(value).replace("|", "\\|")


def _md_table(frame: pd.DataFrame) -> str:
    cols = [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(_md_cell(c) for c in cols) + " |",
             "|" + "|".join("---" for _ in cols) + "|"]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(_md_cell(v) for v in row) + " |")
    return "\n".join(lines)


def to_markdown(report: Report, figure_dir: str = FIGURES) -> str:
    """The Markdown twin; figures are referenced as ``figure_dir/<name>.png`` (and a figure
    with an SVG twin links ``figure_dir/<name>.svg`` under it)."""
    parts = [f"# {_md_line(report.title)}", "", f"*{_md_line(report.subtitle)}*", ""]
    for section in report.sections:
        parts += [f"## {_md_line(section.title)}", ""]
        for block in section.blocks:
            if isinstance(block, Paragraph):
                if block.kind == "code":
                    parts += [*_md_code(block.text, "sh"), ""]
                elif block.kind == "note":
                    parts += [f"> **Note.** {_md_line(block.text)}", ""]
                elif block.kind == "verdict":
                    parts += [f"- {_md_line(block.text)}"]
                elif block.kind == "rests":
                    parts += ["", f"*{_md_line(block.text)}*", ""]
                else:
                    parts += [_md(block.text), ""]
            elif isinstance(block, Table):
                if block.caption:
                    parts += [f"**{_md_line(block.caption)}**", ""]
                parts += [_md_table(block.frame), ""]
            elif isinstance(block, Figure):
                parts += [f"![{_md_line(block.caption)}]({figure_target(block, figure_dir)})",
                          "", f"*{_md_line(block.caption)}*"
                          + (f" ([SVG]({figure_target(block, figure_dir, 'svg')}))"
                             if block.svg else ""), ""]
    return _pictured("\n".join(parts))


def render(run: str | Path, out: str | Path | None = None, *,
           allow_import: bool = False, sensitivity: bool | None = None,
           svg: bool = False, embed: bool = False) -> dict[str, Any]:
    """Write ``report.html``, ``report.md`` and ``figures/<name>.png`` for a run.

    Parameters
    ----------
    run
        A run directory written by ``balance sweep``.
    out
        Where to write (default: ``<run>/report``).
    allow_import
        The run's ruleset may be a ``package.module:OBJECT`` path to import.
    sensitivity
        Recompute the verdict's key answer under each alternative reading and policy
        (default: as the spec's ``[verdict] sensitivity`` says, else no).
    svg
        Also write an SVG twin of each figure (``figures/<name>.svg``, linked from the
        Markdown twin).
    embed
        Put each PNG inside ``report.html`` (a page that needs no other file) rather than
        referencing ``figures/``.

    Returns
    -------
    dict
        ``{"html": path, "markdown": path, "figures": [paths]}``.
    """
    from ..experiments.store import load_run

    loaded = load_run(run)
    run_dir = Path(loaded.path)
    out_dir = Path(out) if out is not None else run_dir / "report"
    check_folder(out_dir, "--out", " for the report")
    results, meta = loaded.table, loaded.meta
    spec_copy = run_dir / "experiment.toml"
    question = question_from_spec(spec_copy.read_text()) if spec_copy.is_file() else ""
    if sensitivity is None:
        sensitivity = bool((meta.get("spec", {}).get("verdict") or {}).get("sensitivity"))
    made = run_verdict(results, meta, sensitivity=sensitivity, allow_import=allow_import)
    report = build(results, meta, question, spec_figures(run_dir, meta, svg=svg),
                   allow_import=allow_import, verdict=made, svg=svg)
    make_folder(out_dir, "--out")
    with writing_in(out_dir, "--out"):
        figures = _write_figures(report, out_dir)
        html_path, md_path = out_dir / "report.html", out_dir / "report.md"
        atomic_write(md_path, to_markdown(report))
        atomic_write(html_path, to_html(report, embed=embed))
    return {"html": html_path, "markdown": md_path, "figures": figures}


def _write_figures(report: Report, out_dir: Path) -> list[Path]:
    """Each figure's PNG (and SVG) in ``out_dir/figures``; the paths written."""
    figures = []
    # figures of an earlier report in this folder would otherwise linger beside the new ones
    for stale in (out_dir / FIGURES).glob("*"):
        if stale.suffix in (".png", ".svg"):
            stale.unlink()
    for section in report.sections:
        for block in section.blocks:
            if isinstance(block, Figure):
                for ext, data in (("png", block.png), ("svg", block.svg)):
                    if not data:
                        continue
                    path = out_dir / FIGURES / f"{bounded_name(block.name)}.{ext}"
                    atomic_write(path, data)
                    figures.append(path)
    return figures


PAGES = ("report.html", "report.md")


def unreferenced(folder: str | Path) -> list[Path]:
    """The files of a report folder that neither page references: every file but
    ``report.html`` and ``report.md`` must be the target of a link or an image of one of
    them (relative paths, as :func:`render` writes them)."""
    folder = Path(folder)
    targets: set[Path] = set()
    for page in PAGES:
        if not (folder / page).is_file():
            continue
        text = (folder / page).read_text(encoding="utf-8")
        links = re.findall(r'(?:src|href)="([^"]+)"', text) + re.findall(r"\]\(([^)\s]+)\)", text)
        for link in links:
            if ":" in link.split("/", 1)[0] or link.startswith("#"):
                continue  # a data URI, another site, an anchor
            target = urllib.parse.unquote(html.unescape(link))
            targets.add((folder / target).resolve())
    pages = {(folder / page).resolve() for page in PAGES}
    return sorted(p for p in folder.rglob("*") if p.is_file()
                  and p.resolve() not in pages | targets)
