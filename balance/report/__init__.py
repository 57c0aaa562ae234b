"""Playtest reports: a run directory -> an HTML page, its Markdown twin and their figures.

>>> from balance import report
>>> paths = report.render("runs/crt-skill-vs-experience")      # doctest: +SKIP
>>> paths["html"], paths["markdown"]                              # doctest: +SKIP
"""

from __future__ import annotations

from .build import Block, Figure, Paragraph, Report, Section, Table, build, question_from_spec
from .render import render, to_html, to_markdown, unreferenced

__all__ = ["Block", "Figure", "Paragraph", "Report", "Section", "Table", "build",
           "question_from_spec", "render", "to_html", "to_markdown", "unreferenced"]
